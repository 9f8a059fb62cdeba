function [F, c] = m2cu_solve_operands(A, b)
%M2CU_SOLVE_OPERANDS  The operands of `A \ b` or `b / A` in the class of the result (single if
%   either is single, else double), b always an array (a scalar b as a 1-by-1 one, so that
%   every branch of the division gives an array). Refuses, at translation, the operands m2cu
%   does not solve yet: complex or integer values.
if ~isreal(A) || ~isreal(b)
  m2cu_refuse('`\` or `/` of complex matrices (a complex linear solve) is not supported yet', ...
              'solve the real system [real(A) -imag(A); imag(A) real(A)] for [real(x); imag(x)]');
end
if isinteger(A) || isinteger(b)
  m2cu_refuse('`\` or `/` of an integer matrix is not supported', ...
              'convert to double first, as in `double(A) \ double(b)`');
end
if isa(A, 'single') || isa(b, 'single')
  F = single(A);
  c = single(repmat(b, 1, 1));
else
  F = double(A);
  c = double(repmat(b, 1, 1));
end
end
