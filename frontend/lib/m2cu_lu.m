function [F, p, singular, swaps] = m2cu_lu(F)
%M2CU_LU  The LU factors of the square matrix F with partial pivoting, as LAPACK's getrf
%   computes them, to the bit: in column k the pivot is the first element of largest
%   magnitude on or below the diagonal; its row is swapped up (p records the order of the
%   rows of the original, so F(p, :) = L*U); the multipliers are the column times 1/pivot
%   (divided by the pivot where it is below realmin, as LAPACK does); then each element of the
%   trailing matrix is updated, a(i,j) - l(i,k)*u(k,j), k in order. L is below the diagonal
%   (its unit diagonal not stored), U on and above it. SINGULAR when a pivot is exactly 0;
%   SWAPS counts the row swaps.
%   Column k is one step of a sequential loop; its updates are a parallel 2-D loop.
n = size(F, 1);
p = 1:n;
singular = false;
swaps = 0;
for k = 1:n
  r = k;
  largest = abs(F(k, k));
  for i = k + 1:n
    if abs(F(i, k)) > largest
      largest = abs(F(i, k));
      r = i;
    end
  end
  if r ~= k
    for j = 1:n
      t = F(k, j);
      F(k, j) = F(r, j);
      F(r, j) = t;
    end
    swaps = swaps + 1;
    q = p(k);
    p(k) = p(r);
    p(r) = q;
  end
  pivot = F(k, k);
  if pivot == 0
    singular = true;
  elseif abs(pivot) >= realmin('like', F)
    reciprocal = 1 / pivot;
    for i = k + 1:n
      F(i, k) = F(i, k) * reciprocal;
    end
  else
    for i = k + 1:n
      F(i, k) = F(i, k) / pivot;
    end
  end
  % Column k's multipliers and row k, copied so that the update reads no element it writes.
  l = F(1:n, k);
  u = F(k, 1:n);
  for j = k + 1:n
    for i = k + 1:n
      F(i, j) = F(i, j) - l(i) * u(j);
    end
  end
end
end
