function c = gt(a, b)
%GT  Elementwise greater than: `a > b`, the operator as a function (for handles such as @gt).
c = a > b;
end
