function d = hex2dec(s)
%HEX2DEC  The number a char row of hexadecimal digits writes (either case, spaces ignored);
% NaN when another character is in it, as MATLAB and Octave read it.
%   m2cu's own MATLAB source: one char row (a char matrix gives a column, not supported yet).
d = m2cu_undigits(s, 16, 'hex2dec');
end
