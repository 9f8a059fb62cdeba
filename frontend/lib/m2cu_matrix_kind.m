function kind = m2cu_matrix_kind(A)
%M2CU_MATRIX_KIND  Which solver Octave's `\`, `/` and `det` choose for the square real matrix
%   A, by Octave's probe of its structure: 1 upper triangular and 2 lower triangular (each with
%   no zero on the diagonal; a diagonal matrix is upper), 3 symmetric with a positive diagonal
%   and a(i,j)^2 < a(i,i)*a(j,j) off it (Cholesky is tried first), 0 any other (LU with
%   partial pivoting). The squares are taken in double, as Octave does for single matrices.
%   Each test is a count over the elements, so the loops are parallel sums.
n = size(A, 1);
zeros_on_diagonal = 0;
not_positive = 0;
for j = 1:n
  zeros_on_diagonal = zeros_on_diagonal + (A(j, j) == 0);
  not_positive = not_positive + ~(A(j, j) > 0);
end
above = 0;
below = 0;
unlike = 0;
for j = 1:n
  for i = 1:n
    if i < j
      above = above + (A(i, j) ~= 0);
      below = below + (A(j, i) ~= 0);
      aij = double(A(i, j));
      bounded = aij * aij < double(A(i, i) * A(j, j));
      unlike = unlike + ~(A(i, j) == A(j, i) && bounded);
    end
  end
end
if zeros_on_diagonal == 0 && below == 0
  kind = 1;
elseif zeros_on_diagonal == 0 && above == 0
  kind = 2;
elseif not_positive == 0 && unlike == 0
  kind = 3;
else
  kind = 0;
end
end
