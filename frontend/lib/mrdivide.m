function x = mrdivide(b, A)
%MRDIVIDE  `b / A`, the solution of x*A = b for a square A: (A.' \ b.').' as Octave solves it
%   (m2cu_solve). A scalar A divides each element. A matrix that is not square (a
%   least-squares solve) or singular stops the run.
m2cu_solve_classes(A, b);
if ndims(A) > 2 || ndims(b) > 2
  error('MATLAB:mrdivide:inputsMustBe2D', 'Arguments must be 2-D, or at least one argument must be scalar. Use RDIVIDE (./) for elementwise right division.');
end
% A scalar b becomes a one-element array, so that every branch gives an array.
c = repmat(b, 1, 1);
if numel(A) == 1
  x = c ./ A(1);
elseif size(A, 2) ~= size(c, 2)
  error('MATLAB:dimagree', 'Matrix dimensions must agree.');
elseif size(A, 1) ~= size(A, 2)
  error('m2cu:leastsquares', 'm2cu: b / A with a %d-by-%d A is a least-squares solve, which m2cu does not support yet', size(A, 1), size(A, 2));
else
  x = m2cu_solve(A, c.', true).';
end
end
