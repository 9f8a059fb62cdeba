function m2cu_square_matrix(A)
%M2CU_SQUARE_MATRIX  What `det` and `inv` ask of their argument: a real double or single
%   matrix (others refused at translation), square (MATLAB's error) and without Inf or NaN
%   (m2cu_finite_matrix).
if ~isreal(A)
  m2cu_refuse('`det` and `inv` of a complex matrix are not supported yet', ...
              'work with the real matrix [real(A) -imag(A); imag(A) real(A)]');
end
if ~isfloat(A)
  m2cu_refuse('`det` and `inv` take a double or single matrix, as in MATLAB', ...
              'convert first, as in `det(double(A))` or `inv(double(A))`');
end
if ndims(A) > 2 || size(A, 1) ~= size(A, 2)
  error('MATLAB:square', 'Matrix must be square.');
end
m2cu_finite_matrix(A);
end
