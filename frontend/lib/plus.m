function c = plus(a, b)
%PLUS  Sum: `a + b`, the operator as a function (for handles such as @plus).
c = a + b;
end
