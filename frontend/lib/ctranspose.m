function b = ctranspose(a)
%CTRANSPOSE  `a'` (the complex conjugate of the transpose), the operator as a function.
b = a';
end
