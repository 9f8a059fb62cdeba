function c = or(a, b)
%OR  Elementwise logical or: `a | b`, the operator as a function (for handles such as @or).
c = a | b;
end
