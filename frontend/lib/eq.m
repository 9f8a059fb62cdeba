function c = eq(a, b)
%EQ  Elementwise equality: `a == b`, the operator as a function (for handles such as @eq).
c = a == b;
end
