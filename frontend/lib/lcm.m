function l = lcm(a, b)
%LCM  The least common multiple of a and b, elementwise (a scalar with every element of the
%   other), as Octave computes it: a .* (b ./ gcd(a, b)), 0 where both are 0.
%
%   m2cu's own MATLAB source: two arguments.
if ~(isfloat(a) || isinteger(a)) || ~(isfloat(b) || isinteger(b))
  m2cu_refuse('`lcm` of logical or char values', 'convert first, `lcm(double(a), double(b))`');
end
g = gcd(a, b);
l = g;
for k = 1:numel(l)
  x = cast(a(min(k, numel(a))), 'like', g);
  y = cast(b(min(k, numel(b))), 'like', g);
  if x == 0 && y == 0
    l(k) = 0;
  else
    l(k) = x * (y / g(k));
  end
end
end
