function c = rdivide(a, b)
%RDIVIDE  Elementwise right division: `a ./ b`, the operator as a function (for handles such as @rdivide).
c = a ./ b;
end
