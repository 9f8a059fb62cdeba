function y = polyval(p, x)
%POLYVAL  The polynomial with coefficients p (highest power first) at every element of x, by
%   Horner's rule as Octave computes it: y = p(1), then y = y .* x + p(i).
%
%   m2cu's own MATLAB source: an elementwise loop over the coefficients.
if ~isfloat(p) || ~isfloat(x)
  m2cu_refuse('`polyval` of integer, logical or char values: MATLAB and Octave stop (P and X must be floating point)', ...
              'convert first, `polyval(double(p), double(x))`');
end
if ~isreal(p) || ~isreal(x)
  m2cu_refuse('`polyval` of complex values are not supported yet', 'write Horner''s rule in a loop, y = y * x + p(i)');
end
if ~isvector(p) && ~isempty(p)
  error('polyval: P must be a numeric floating point vector');
end
if isempty(p)
  y = zeros(size(x), 'like', x);
  return;
end
n = numel(p) - 1;
y = p(1) * ones(size(x), 'like', x);
for i = 2:n + 1
  y = y .* x + p(i);
end
end
