function T = m2cu_triangle(name, A, k, lower)
%M2CU_TRIANGLE  The part of A on and below (LOWER) or on and above the k-th diagonal, the
%   other elements 0, for tril and triu. A keeps its class and size; k may be any integer
%   (past the last diagonal, all or nothing is kept). Each element is one iteration of a
%   parallel 2-D loop.
if ndims(A) > 2
  error('%s: need a 2-D matrix', name);
end
if ~(k == floor(k))
  error('%s: K must be an integer', name);
end
T = A;
[m, n] = size(A);
for j = 1:n
  for i = 1:m
    if (lower && j - i > k) || (~lower && j - i < k)
      T(i, j) = 0;
    end
  end
end
end
