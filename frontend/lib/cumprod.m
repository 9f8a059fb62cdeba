function y = cumprod(x, dim)
%CUMPROD  Cumulative product along the first dimension whose extent is not 1, or along DIM.
%   As MATLAB: the products run in order, so y equals Octave's to the bit; logical and char
%   values give double, single stays single. Integer arrays are refused (MATLAB saturates in
%   the integer class, Octave 7 returns double).
if isinteger(x)
  m2cu_refuse('`cumprod` of an integer array: MATLAB saturates in the integer class and Octave 7 returns double, so m2cu takes neither', ...
              'convert first for the double result, `cumprod(double(x))`, or write the loop for the saturating one');
end
if nargin == 2
  y = m2cu_cumulate('cumprod', x, dim, true);
elseif size(x, 1) == 1
  y = m2cu_cumulate('cumprod', x, 2, true);
else
  y = m2cu_cumulate('cumprod', x, 1, true);
end
end
