function r = colon(a, b, c)
%COLON  `a:b` and `a:b:c`, the operator as a function.
if nargin == 2
  r = a:b;
else
  r = a:b:c;
end
end
