function x = mldivide(A, b)
%MLDIVIDE  `A \ b`, the solution of the linear system A*x = b for a square A, with Octave's
%   choice of method (triangular substitution, Cholesky, LU with partial pivoting) and
%   LAPACK's order of operations (m2cu_solve). A scalar A divides each element. An A with more
%   rows than columns gives the least-squares solution (m2cu_least_squares, Householder QR).
%   A singular A, one of deficient rank and one with fewer rows than columns stop the run.
[F, c] = m2cu_solve_operands(A, b);
if ndims(A) > 2 || ndims(b) > 2
  error('MATLAB:mldivide:inputsMustBe2D', 'Arguments must be 2-D, or at least one argument must be scalar. Use LDIVIDE (.\\) for elementwise left division.');
end
if numel(A) == 1
  x = c ./ F(1);
elseif size(A, 1) ~= size(c, 1)
  error('MATLAB:dimagree', 'Matrix dimensions must agree.');
elseif size(A, 1) > size(A, 2)
  [R, y] = m2cu_least_squares(F, c);
  x = m2cu_solve(R, y, false);
elseif size(A, 1) < size(A, 2)
  error('m2cu:underdetermined', 'm2cu: A \\ b with a %d-by-%d A has fewer equations than unknowns: MATLAB returns a basic solution, Octave the minimum-norm one; m2cu stops', size(A, 1), size(A, 2));
else
  x = m2cu_solve(F, c, false);
end
end
