function m2cu_solve_classes(A, b)
%M2CU_SOLVE_CLASSES  Refuses, when m2cu translates `A \ b` or `b / A`, the operands it does
%   not solve yet: complex or integer values.
if ~isreal(A) || ~isreal(b)
  m2cu_refuse('`\` or `/` of complex matrices (a complex linear solve) is not supported yet', ...
              'solve the real system [real(A) -imag(A); imag(A) real(A)] for [real(x); imag(x)]');
end
if isinteger(A) || isinteger(b)
  m2cu_refuse('`\` or `/` of an integer matrix is not supported', ...
              'convert to double first, as in `double(A) \ double(b)`');
end
end
