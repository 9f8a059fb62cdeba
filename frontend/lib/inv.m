function Y = inv(A)
%INV  The inverse of the square real matrix A, as Octave computes it with the reference
%   LAPACK: a triangular A (m2cu_matrix_kind 1 or 2) by trtri; any other by LU with partial
%   pivoting (m2cu_lu), the inverse of U (trtri) and getri's solve with L, then the columns
%   put back in the order of the row swaps. Equal to Octave's to the bit up to 64 rows; above,
%   LAPACK works in blocks of 64 and the results agree to rounding. A symmetric matrix with a
%   positive diagonal is inverted by LU here and by Cholesky in Octave (to rounding too).
%   A singular A gives Inf in every element with MATLAB's warning, as MATLAB and Octave do;
%   Inf or NaN in A stops the run (m2cu_finite_matrix).
m2cu_square_matrix(A);
kind = m2cu_matrix_kind(A);
if kind == 1
  Y = upper_inverse(A);
elseif kind == 2
  Y = lower_inverse(A);
else
  [F, p, singular] = m2cu_lu(A);
  if singular
    warning('MATLAB:singularMatrix', 'Matrix is singular to working precision.');
    Y = A;
    Y(1:end, 1:end) = Inf;
  else
    X = unit_lower_solved(upper_inverse(F));
    Y = X;
    for j = 1:numel(p)
      for i = 1:numel(p)
        Y(i, p(j)) = X(i, j);
      end
    end
  end
end
end

function T = upper_inverse(T)
% The upper triangle of T inverted in place, as trti2 ('U', non-unit) does; the strict lower
% triangle is left as it is.
n = size(T, 1);
for j = 1:n
  T(j, j) = 1 / T(j, j);
  ajj = -T(j, j);
  for k = 1:j - 1
    if T(k, j) ~= 0
      t = T(k, j);
      for i = 1:k - 1
        T(i, j) = T(i, j) + t * T(i, k);
      end
      T(k, j) = T(k, j) * T(k, k);
    end
  end
  for i = 1:j - 1
    T(i, j) = ajj * T(i, j);
  end
end
end

function T = lower_inverse(T)
% The lower triangle of T inverted in place, as trti2 ('L', non-unit) does.
n = size(T, 1);
for j = n:-1:1
  T(j, j) = 1 / T(j, j);
  ajj = -T(j, j);
  for k = n:-1:j + 1
    if T(k, j) ~= 0
      t = T(k, j);
      for i = n:-1:k + 1
        T(i, j) = T(i, j) + t * T(i, k);
      end
      T(k, j) = T(k, j) * T(k, k);
    end
  end
  for i = j + 1:n
    T(i, j) = ajj * T(i, j);
  end
end
end

function F = unit_lower_solved(F)
% getri's unblocked step: with inv(U) above the diagonal and L's multipliers below it, the
% columns of inv(U) * inv(L) from the last to the first (each column less the later ones
% times L's multipliers, in order).
n = size(F, 1);
for j = n:-1:1
  l = F(1:n, j);
  for i = j + 1:n
    F(i, j) = 0;
  end
  for k = j + 1:n
    t = -l(k);
    for i = 1:n
      F(i, j) = F(i, j) + t * F(i, k);
    end
  end
end
end
