function c = le(a, b)
%LE  Elementwise less than or equal: `a <= b`, the operator as a function (for handles such as @le).
c = a <= b;
end
