function c = ge(a, b)
%GE  Elementwise greater than or equal: `a >= b`, the operator as a function (for handles such as @ge).
c = a >= b;
end
