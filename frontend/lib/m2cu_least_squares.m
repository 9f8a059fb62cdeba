function [R, y] = m2cu_least_squares(A, b)
%M2CU_LEAST_SQUARES  The least-squares problem min |A*x - b| for an A with more rows than
%   columns, reduced to the square upper triangular system R*x = y: Householder QR (LAPACK's
%   geqr2 reflectors, as MATLAB's QR solver), each reflector applied to the columns of A to its
%   right and to b. Octave solves the same problem through the SVD (gelsd), so x agrees with
%   Octave's to rounding, not bit for bit. A matrix of deficient rank, or near it (a diagonal
%   element of R at most 10 * max(m, n) * eps times the largest: without pivoting or the SVD
%   that is a generous stand-in for Octave's rank test, singular values below eps times the
%   largest), stops the run: MATLAB then returns a basic solution with a warning and Octave the
%   minimum-norm one. So does Inf or NaN in A.
%   A and b are of one class, double or single (m2cu_solve_operands). Each reflector's sums
%   are parallel reductions.
F = A;
y = b;
m2cu_finite_matrix(F);
[m, n] = size(F);
for k = 1:n
  tail = 0;
  for i = k + 1:m
    tail = tail + F(i, k) * F(i, k);
  end
  alpha = F(k, k);
  tau = 0;
  if tail ~= 0
    beta = sqrt(alpha * alpha + tail);
    if alpha >= 0
      beta = -beta;
    end
    tau = (beta - alpha) / beta;
    scale = 1 / (alpha - beta);
    for i = k + 1:m
      F(i, k) = F(i, k) * scale;
    end
    F(k, k) = beta;
  end
  v = F(1:m, k);
  F = reflected(v, k, tau, F, k + 1);
  y = reflected(v, k, tau, y, 1);
end
largest = 0;
for k = 1:n
  largest = max(largest, abs(F(k, k)));
end
for k = 1:n
  if abs(F(k, k)) <= 10 * max(m, n) * eps('like', F) * largest
    error('m2cu:rankdeficient', 'm2cu: A \\ b of a %d-by-%d A of deficient rank: MATLAB returns a basic solution with a warning, Octave the minimum-norm one; m2cu stops', m, n);
  end
end
R = triu(F(1:n, 1:n));
y = y(1:n, 1:end);
end

function Y = reflected(v, k, tau, Y, first)
% The columns first:end of Y times the reflector I - tau*w*w', w(k) = 1 and w(k+1:end) =
% v(k+1:end) (column k of the factored matrix, copied so that the update reads no element it
% writes).
m = size(Y, 1);
for j = first:size(Y, 2)
  w = Y(k, j);
  for i = k + 1:m
    w = w + v(i) * Y(i, j);
  end
  w = tau * w;
  Y(k, j) = Y(k, j) - w;
  for i = k + 1:m
    Y(i, j) = Y(i, j) - v(i) * w;
  end
end
end
