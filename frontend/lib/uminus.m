function b = uminus(a)
%UMINUS  Negation: `-a`, the operator as a function.
b = -a;
end
