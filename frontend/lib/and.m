function c = and(a, b)
%AND  Elementwise logical and: `a & b`, the operator as a function (for handles such as @and).
c = a & b;
end
