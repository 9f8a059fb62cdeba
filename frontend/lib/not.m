function b = not(a)
%NOT  Logical negation: `~a`, the operator as a function.
b = ~a;
end
