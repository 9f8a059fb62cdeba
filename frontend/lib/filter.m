function y = filter(b, a, x)
%FILTER  The output of the rational filter b(z) / a(z) for the input vector x, from rest:
%   a(1) y(n) = b(1) x(n) + ... + b(nb) x(n-nb+1) - a(2) y(n-1) - ... - a(na) y(n-na+1),
%   as Octave computes it (coefficients divided by a(1), the direct form II transposed).
%
%   m2cu's own MATLAB source: vectors only, no initial conditions; a sequential loop.
if ~isfloat(b) || ~isfloat(a) || ~isfloat(x)
  m2cu_refuse('`filter` of integer, logical or char values', 'convert first, `filter(double(b), double(a), double(x))`');
end
if ~isreal(b) || ~isreal(a) || ~isreal(x)
  m2cu_refuse('`filter` of complex values are not supported yet', 'filter the real and imaginary parts on their own');
end
if ~isvector(x)
  error('m2cu:filter', 'm2cu: filter of a matrix is not supported yet; filter each column, filter(b, a, X(:, j))');
end
if isempty(a) || a(1) == 0
  error('filter: a(1) must be nonzero');
end
len = max(numel(a), numel(b));
bn = zeros(1, len);
an = zeros(1, len);
bn(1:numel(b)) = b;
an(1:numel(a)) = a;
if a(1) ~= 1
  bn = bn / a(1);
  an = an / a(1);
end
si = zeros(1, len);
y = zeros(size(x));
for i = 1:numel(x)
  y(i) = si(1) + bn(1) * x(i);
  if numel(a) > 1
    for j = 1:len - 2
      si(j) = si(j + 1) - an(j + 1) * y(i) + bn(j + 1) * x(i);
    end
    if len > 1
      si(len - 1) = bn(len) * x(i) - an(len) * y(i);
    end
  else
    for j = 1:len - 2
      si(j) = si(j + 1) + bn(j + 1) * x(i);
    end
    if len > 1
      si(len - 1) = bn(len) * x(i);
    end
  end
end
end
