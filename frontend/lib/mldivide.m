function x = mldivide(A, b)
%MLDIVIDE  `A \ b`, the solution of the linear system A*x = b for a square A, with Octave's
%   choice of method (triangular substitution, Cholesky, LU with partial pivoting) and
%   LAPACK's order of operations (m2cu_solve). A scalar A divides each element. A matrix that
%   is not square (a least-squares solve) or singular stops the run.
m2cu_solve_classes(A, b);
if ndims(A) > 2 || ndims(b) > 2
  error('MATLAB:mldivide:inputsMustBe2D', 'Arguments must be 2-D, or at least one argument must be scalar. Use LDIVIDE (.\\) for elementwise left division.');
end
% A scalar b becomes a one-element array, so that every branch gives an array.
c = repmat(b, 1, 1);
if numel(A) == 1
  x = c ./ A(1);
elseif size(A, 1) ~= size(c, 1)
  error('MATLAB:dimagree', 'Matrix dimensions must agree.');
elseif size(A, 1) ~= size(A, 2)
  error('m2cu:leastsquares', 'm2cu: A \\ b with a %d-by-%d A is a least-squares solve, which m2cu does not support yet', size(A, 1), size(A, 2));
else
  x = m2cu_solve(A, c, false);
end
end
