function T = triu(A, k)
%TRIU  The elements of A on and above its k-th diagonal (k = 0, the main diagonal, by
%   default; k > 0 above it, k < 0 below it), the others 0, in A's class.
if nargin < 2
  k = 0;
end
T = m2cu_triangle('triu', A, k, false);
end
