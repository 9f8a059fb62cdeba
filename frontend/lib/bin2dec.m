function d = bin2dec(s)
%BIN2DEC  The number a char row of binary digits writes (spaces ignored); NaN when another
% character is in it, as MATLAB and Octave read it.
%   m2cu's own MATLAB source: one char row (a char matrix gives a column, not supported yet).
d = m2cu_undigits(s, 2, 'bin2dec');
end
