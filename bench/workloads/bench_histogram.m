function h = bench_histogram(b)
% bench: a 256-bin histogram of a uint8 row (a scatter-add with data-dependent bins).
h = zeros(1, 256);
for i = 1:numel(b)
  k = double(b(i)) + 1;
  h(k) = h(k) + 1;
end
end
