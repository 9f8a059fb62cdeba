function y = cumsum(x, dim)
%CUMSUM  Cumulative sum along the first dimension whose extent is not 1, or along DIM.
%   As MATLAB: the sums run in order, so y equals Octave's to the bit; logical and char values
%   give double, single stays single. Integer arrays are refused (MATLAB saturates in the
%   integer class, Octave 7 returns double).
if isinteger(x)
  m2cu_refuse('`cumsum` of an integer array: MATLAB saturates in the integer class and Octave 7 returns double, so m2cu takes neither', ...
              'convert first for the double result, `cumsum(double(x))`, or write the loop for the saturating one');
end
if nargin == 2
  y = m2cu_cumulate('cumsum', x, dim, false);
elseif size(x, 1) == 1
  y = m2cu_cumulate('cumsum', x, 2, false);
else
  y = m2cu_cumulate('cumsum', x, 1, false);
end
end
