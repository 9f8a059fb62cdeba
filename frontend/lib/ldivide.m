function c = ldivide(a, b)
%LDIVIDE  Elementwise left division: `a .\ b`, the operator as a function (for handles such as @ldivide).
c = a .\ b;
end
