function p = polyfit(x, y, n)
%POLYFIT  The coefficients (highest power first, a row) of the polynomial of degree n that fits
%   the points (x, y) best in the least-squares sense: the Vandermonde system solved by m2cu's
%   least squares (Householder QR), as MATLAB and Octave do (their pivoted QR may differ from
%   it in the last bits).
%
%   m2cu's own MATLAB source: one output; a degree at least the number of points stops.
if ~isfloat(x) || ~isfloat(y)
  m2cu_refuse('`polyfit` of integer, logical or char values', 'convert first, `polyfit(double(x), double(y), n)`');
end
if numel(x) ~= numel(y)
  error('polyfit: X and Y must have the same number of points');
end
if ~(n >= 0 && ~isinf(n) && n == fix(n))
  error('polyfit: N must be a non-negative integer');
end
m = numel(x);
if n >= m
  error('m2cu:polyfit', 'm2cu: polyfit with a degree N at least the number of points has no unique solution (Octave warns and pads with zeros); fit a lower degree');
end
V = zeros(m, n + 1, 'like', x);
for i = 1:m
  V(i, n + 1) = 1;
  for j = n:-1:1
    V(i, j) = V(i, j + 1) * x(i);
  end
end
p = (V \ y(:)).';
end
