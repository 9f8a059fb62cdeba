function s = dec2hex(d, len)
%DEC2HEX  The hexadecimal digits (upper case) of a non-negative whole number below 2^53, at
% least len of them (zeros before), as MATLAB and Octave write them.
%   m2cu's own MATLAB source: one number (an array gives rows of text, not supported yet).
if nargin < 2
  len = 0;
end
s = m2cu_digits(d, 16, len, 'dec2hex');
end
