function c = lt(a, b)
%LT  Elementwise less than: `a < b`, the operator as a function (for handles such as @lt).
c = a < b;
end
