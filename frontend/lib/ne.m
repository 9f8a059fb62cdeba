function c = ne(a, b)
%NE  Elementwise inequality: `a ~= b`, the operator as a function (for handles such as @ne).
c = a ~= b;
end
