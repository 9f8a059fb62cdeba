function [r, c, v] = m2cu_find(A, n, direction)
%M2CU_FIND  [r, c] = find(A, ...) and [r, c, v] = find(A, ...): the rows and columns of the
%   nonzero elements of A (of A(:, :) for a 3-D A, as MATLAB) in column-major order, and their
%   values, each shaped as find(A) is (a row for a row A, else a column). For `find`.
if nargin == 1
  k = find(A);
elseif nargin == 2
  k = find(A, n);
else
  k = find(A, n, direction);
end
m = size(A, 1);
r = mod(k - 1, m) + 1;
c = floor((k - 1) / m) + 1;
if nargout == 3
  v = A(k);
end
end
