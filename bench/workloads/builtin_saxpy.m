function y = builtin_saxpy(a, x, y)
% bench, Octave's builtin for bench_saxpy: the vectorized expression.
y = a * x + y;
end
