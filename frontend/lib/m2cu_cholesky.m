function [G, positive] = m2cu_cholesky(G)
%M2CU_CHOLESKY  The lower Cholesky factor L (G = L*L') of the symmetric matrix G, as LAPACK's
%   potrf computes it, to the bit: l(k,k) = sqrt of the updated diagonal, the column below it
%   times 1/l(k,k), then each element of the trailing lower triangle updated,
%   a(i,j) - l(i,k)*l(j,k), k in order. Only the lower triangle is read and written.
%   POSITIVE is false, and G unfinished, where an updated diagonal is not positive (G is not
%   positive definite), as potrf's INFO > 0.
n = size(G, 1);
positive = true;
for k = 1:n
  if ~(G(k, k) > 0)
    positive = false;
    break;
  end
  G(k, k) = sqrt(G(k, k));
  reciprocal = 1 / G(k, k);
  for i = k + 1:n
    G(i, k) = G(i, k) * reciprocal;
  end
  % Column k, copied so that the update reads no element it writes.
  g = G(1:n, k);
  for j = k + 1:n
    for i = j:n
      G(i, j) = G(i, j) - g(i) * g(j);
    end
  end
end
end
