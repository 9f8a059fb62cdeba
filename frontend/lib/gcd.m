function g = gcd(a, b)
%GCD  The greatest common divisor of a and b, elementwise (a scalar with every element of the
%   other), by Euclid's algorithm on the magnitudes as Octave computes it; gcd(0, 0) is 0.
%
%   m2cu's own MATLAB source: two arguments.
if ~(isfloat(a) || isinteger(a)) || ~(isfloat(b) || isinteger(b))
  m2cu_refuse('`gcd` of logical or char values', 'convert first, `gcd(double(a), double(b))`');
end
if m2cu_scalar_type(a)
  sz = size(b);
else
  sz = size(a);
  if numel(b) ~= 1 && ~isequal(size(a), size(b))
    error('gcd: all values must be the same size or scalar');
  end
end
% The result has the integer class of an integer argument, else a's.
if isinteger(b) && ~isinteger(a)
  g = zeros(sz, 'like', b);
else
  g = zeros(sz, 'like', a);
end
for k = 1:numel(g)
  x = cast(a(min(k, numel(a))), 'like', g);
  y = cast(b(min(k, numel(b))), 'like', g);
  if x ~= round(x) || y ~= round(y)
    error('gcd: all values must be integers');
  end
  g(k) = euclid(abs(x), abs(y));
end
end

function x = euclid(x, y)
% Euclid's algorithm on magnitudes: the remainder until it is 0.
while y ~= 0
  t = mod(x, y);
  x = y;
  y = t;
end
end
