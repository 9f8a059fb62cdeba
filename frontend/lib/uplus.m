function b = uplus(a)
%UPLUS  `+a`, the operator as a function: a itself.
b = a;
end
