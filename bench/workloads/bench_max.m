function m = bench_max(x)
% bench: a running maximum (the if-form of a max reduction) over a row.
m = -inf;
for i = 1:numel(x)
  if x(i) > m
    m = x(i);
  end
end
end
