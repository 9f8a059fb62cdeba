function x = m2cu_solve(A, b, transposed)
%M2CU_SOLVE  x = A \ b for a square real matrix A (x = A.' \ b when TRANSPOSED, which is how
%   b / A is solved: m2cu_solve(A, b.', true).'), with Octave's choice of method and LAPACK's
%   order of operations, so that x equals Octave's to the bit where Octave calls the
%   reference LAPACK and BLAS:
%   - a triangular A (m2cu_matrix_kind 1 or 2): substitution (trtrs);
%   - a symmetric A with a positive diagonal (kind 3): Cholesky (potrf, potrs), and LU where
%     the factorization finds A not positive definite;
%   - any other: LU with partial pivoting (getrf, getrs); b / A factors A.' itself.
%   A singular A (an exact zero pivot) stops the run: MATLAB warns and returns Inf or NaN,
%   Octave returns a least-squares solution. So does an A with Inf or NaN (m2cu_finite_matrix).
%   A and b are of one class, double or single (m2cu_solve_operands).
%   Each column of b is solved in order; the factorizations' updates are parallel loops.
F = A;
x = b;
m2cu_finite_matrix(F);
kind = m2cu_matrix_kind(F);
if kind == 1 && transposed
  x = forward_transposed(F, x);
elseif kind == 1
  x = backward(F, x);
elseif kind == 2 && transposed
  x = backward_transposed(F, x);
elseif kind == 2
  x = forward(F, x, false);
else
  if transposed
    F = F.';
  end
  positive = false;
  if kind == 3
    [G, positive] = m2cu_cholesky(F);
    if positive
      x = backward_transposed(G, forward(G, x, false));
    end
  end
  if ~positive
    [F, p, singular] = m2cu_lu(F);
    if singular
      error('m2cu:singular', 'm2cu: the matrix is singular: MATLAB warns and returns Inf or NaN, Octave returns a least-squares solution; m2cu stops');
    end
    x = backward(F, forward(F, permuted(x, p), true));
  end
end
end

function y = permuted(x, p)
% The rows of x in the order p (getrs applies getrf's row swaps to b).
y = x;
for j = 1:size(x, 2)
  for i = 1:numel(p)
    y(i, j) = x(p(i), j);
  end
end
end

function x = forward(L, x, unit)
% L \ x for the lower triangle of L (its diagonal taken as ones when UNIT), as trsm does:
% column by column, a zero of x skipped.
n = size(L, 1);
for j = 1:size(x, 2)
  for k = 1:n
    if x(k, j) ~= 0
      if ~unit
        x(k, j) = x(k, j) / L(k, k);
      end
      for i = k + 1:n
        x(i, j) = x(i, j) - x(k, j) * L(i, k);
      end
    end
  end
end
end

function x = backward(U, x)
% U \ x for the upper triangle of U, as trsm does: column by column, a zero of x skipped.
n = size(U, 1);
for j = 1:size(x, 2)
  for k = n:-1:1
    if x(k, j) ~= 0
      x(k, j) = x(k, j) / U(k, k);
      for i = 1:k - 1
        x(i, j) = x(i, j) - x(k, j) * U(i, k);
      end
    end
  end
end
end

function x = forward_transposed(U, x)
% U.' \ x for the upper triangle of U, as trsm does: each x(i) less u(k,i)*x(k), k rising,
% then divided (written as updates in that order, so no sum is reassociated).
n = size(U, 1);
for j = 1:size(x, 2)
  for k = 1:n
    x(k, j) = x(k, j) / U(k, k);
    for i = k + 1:n
      x(i, j) = x(i, j) - U(k, i) * x(k, j);
    end
  end
end
end

function x = backward_transposed(L, x)
% L.' \ x for the lower triangle of L, as trsm does: x(i) less l(k,i)*x(k) for k rising from
% i+1, then divided. The subtractions run in that order in one sequential loop per element.
n = size(L, 1);
for j = 1:size(x, 2)
  for i = n:-1:1
    for k = i + 1:n
      x(i, j) = x(i, j) - L(k, i) * x(k, j);
    end
    x(i, j) = x(i, j) / L(i, i);
  end
end
end
