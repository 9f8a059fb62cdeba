function y = bench_saxpy(a, x, y)
% bench: y = a*x + y elementwise over rows, y updated in place.
for i = 1:numel(x)
  y(i) = a * x(i) + y(i);
end
end
