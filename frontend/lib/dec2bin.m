function s = dec2bin(d, len)
%DEC2BIN  The binary digits of a non-negative whole number below 2^53, at least len of them
% (zeros before), as MATLAB and Octave write them.
%   m2cu's own MATLAB source: one number (an array gives rows of text, not supported yet).
if nargin < 2
  len = 0;
end
s = m2cu_digits(d, 2, len, 'dec2bin');
end
