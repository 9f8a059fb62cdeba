function p = primes(n)
%PRIMES  The prime numbers up to n, a row in increasing order (of n's class), by the sieve of
%   Eratosthenes.
%
%   m2cu's own MATLAB source.
if numel(n) ~= 1 || ~isreal(n)
  error('primes: N must be a real scalar');
end
if ~isfinite(n) && n ~= -Inf
  error('primes: N must be finite (not +Inf or NaN)');
end
top = floor(double(n));
if top < 2
  top = 1;
end
sieve = true(1, top);
sieve(1) = false;
for i = 2:floor(sqrt(top))
  if sieve(i)
    for j = i * i:i:top
      sieve(j) = false;
    end
  end
end
p = cast(find(sieve), class(n));
end
