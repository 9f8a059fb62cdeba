function c = times(a, b)
%TIMES  Elementwise product: `a .* b`, the operator as a function (for handles such as @times).
c = a .* b;
end
