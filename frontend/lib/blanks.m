function b = blanks(n)
%BLANKS  A row of n spaces (a char row; 1-by-0 for n = 0), as MATLAB and Octave.
%   n must be a non-negative whole number, with Octave's message otherwise.
if ~(n >= 0 && n == fix(n))
  error('blanks: N must be a non-negative integer');
end
b = repmat(' ', 1, n);
end
