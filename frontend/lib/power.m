function c = power(a, b)
%POWER  Elementwise power: `a .^ b`, the operator as a function (for handles such as @power).
c = a .^ b;
end
