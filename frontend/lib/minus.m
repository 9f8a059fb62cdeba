function c = minus(a, b)
%MINUS  Difference: `a - b`, the operator as a function (for handles such as @minus).
c = a - b;
end
