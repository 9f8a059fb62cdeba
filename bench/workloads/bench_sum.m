function s = bench_sum(x)
% bench: a double sum reduction over a row.
s = 0;
for i = 1:numel(x)
  s = s + x(i);
end
end
