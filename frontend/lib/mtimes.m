function c = mtimes(a, b)
%MTIMES  Matrix product: `a * b`, the operator as a function (for handles such as @mtimes).
c = a * b;
end
