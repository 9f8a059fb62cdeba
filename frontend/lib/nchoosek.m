function C = nchoosek(v, k)
%NCHOOSEK  The binomial coefficient n choose k for a scalar n, or the k-element combinations of
%   the elements of a vector v, one per row, in lexicographic order of positions. As Octave:
%   k a non-negative integer, n a non-negative integer >= k (of n's class, an integer class
%   saturating); a vector (or a char or logical scalar) gives a 1-by-0 array for k = 0 and a
%   0-by-k array for k > numel(v); the combinations have v's class.
%
%   m2cu's own MATLAB source: the coefficient as the product of (n - k + i) / i for i = 1..k
%   (k the smaller of k and n - k) in double, each step an integer, so exact while the products
%   stay below flintmax (Octave cancels common factors first and warns past flintmax); the
%   combinations by advancing the rightmost position that can still move.
if ~isvector(v)
  error('nchoosek: first argument must be a scalar or a vector');
end
if ~(isreal(k) && isscalar(k) && k >= 0 && k == fix(k))
  error('nchoosek: K must be an integer >= 0');
end
if isscalar(v) && isnumeric(v)
  if ~isreal(v) || v < k || v < 0 || v ~= fix(v)
    error('nchoosek: N must be a non-negative integer >= K');
  end
  C = repmat(v, 1, 1);
  C(1) = binomial(double(v), k);
else
  n = numel(v);
  if k > n
    C = repmat(v(1), 0, k);
    return;
  end
  rows = binomial(n, k);
  C = repmat(v(1), rows, k);
  at = 1:k;
  for r = 1:rows
    C(r, :) = v(at);
    i = k;
    while i >= 1 && at(i) == n - k + i
      i = i - 1;
    end
    if i >= 1
      at(i) = at(i) + 1;
      at(i + 1:k) = at(i) + (1:k - i);
    end
  end
end
end

function c = binomial(n, k)
% n choose k for integers 0 <= k <= n, as the product of (n - m + i) / i for i = 1..m with m
% the smaller of k and n - k: each partial product is an integer.
m = min(k, n - k);
c = 1;
for i = 1:m
  c = c * (n - m + i) / i;
end
end
