function b = m2cu_bin(v, edges)
%M2CU_BIN  The bin of v among sorted EDGES, by bisection: the last k with edges(k) <= v, the
%   last edge only for v == edges(end), or 0 outside the edges (and for NaN). For histc and
%   histcounts.
m = numel(edges);
b = 0;
if m > 0 && v >= edges(1) && v <= edges(m)
  if v == edges(m)
    b = m;
  else
    lo = 1;
    hi = m;
    while hi - lo > 1
      mid = floor((lo + hi) / 2);
      if edges(mid) <= v
        lo = mid;
      else
        hi = mid;
      end
    end
    b = lo;
  end
end
end
