function b = transpose(a)
%TRANSPOSE  `a.'`, the operator as a function.
b = a.';
end
