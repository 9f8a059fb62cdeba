function [m, k] = bench_minloc(x)
% bench: the minimum of a row and the first index where it occurs, as [m, k] = min(x).
m = inf;
k = 0;
for i = 1:numel(x)
  if x(i) < m
    m = x(i);
    k = i;
  end
end
end
