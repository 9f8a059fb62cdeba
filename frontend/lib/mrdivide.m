function x = mrdivide(b, A)
%MRDIVIDE  `b / A`, the solution of x*A = b for a square A: (A.' \ b.').' as Octave solves it
%   (m2cu_solve). A scalar A divides each element. An A with more columns than rows gives the
%   least-squares solution (m2cu_least_squares of A.'). A singular A, one of deficient rank and
%   one with more rows than columns stop the run.
[F, c] = m2cu_solve_operands(A, b);
if ndims(A) > 2 || ndims(b) > 2
  error('MATLAB:mrdivide:inputsMustBe2D', 'Arguments must be 2-D, or at least one argument must be scalar. Use RDIVIDE (./) for elementwise right division.');
end
if numel(A) == 1
  x = c ./ F(1);
elseif size(A, 2) ~= size(c, 2)
  error('MATLAB:dimagree', 'Matrix dimensions must agree.');
elseif size(A, 1) < size(A, 2)
  [R, y] = m2cu_least_squares(F.', c.');
  x = m2cu_solve(R, y, false).';
elseif size(A, 1) > size(A, 2)
  error('m2cu:underdetermined', 'm2cu: b / A with a %d-by-%d A has fewer equations than unknowns: MATLAB returns a basic solution, Octave the minimum-norm one; m2cu stops', size(A, 1), size(A, 2));
else
  x = m2cu_solve(F, c.', true).';
end
end
