function t = isprime(x)
%ISPRIME  Whether each element of x is a prime number (of its magnitude, as Octave: isprime(-7)
%   is true), by trial division up to its square root.
%
%   m2cu's own MATLAB source: real values; a parallel loop over the elements.
if ~isreal(x)
  error('m2cu:isprime', 'm2cu: isprime of complex values (Gaussian primes) is not supported yet');
end
for k = 1:numel(x)
  if fix(x(k)) ~= x(k)
    error('isprime: X contains non-integer entries');
  end
end
t = false(size(x));
for k = 1:numel(x)
  v = abs(double(x(k)));
  prime = v >= 2;
  d = 2;
  while prime && d * d <= v
    if mod(v, d) == 0
      prime = false;
    end
    d = d + 1;
  end
  t(k) = prime;
end
end
