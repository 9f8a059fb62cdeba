function u = builtin_stencil(u)
% bench, Octave's builtin form of bench_stencil: each step as one vectorized assignment.
for step = 1:10
  u(2:end-1, 2:end-1) = 0.25 * (u(1:end-2, 2:end-1) + u(3:end, 2:end-1) + u(2:end-1, 1:end-2) + u(2:end-1, 3:end));
end
end
