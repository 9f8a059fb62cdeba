function [t, start, len] = m2cu_cell_unique(t, s, l)
%M2CU_CELL_UNIQUE  unique(c) of an m2cu cell of texts (the text, and each piece's offset and
% length): the distinct texts in order of their character codes, as Octave 7.3 sorts them (a
% shorter text before a longer one it begins), in the cell's orientation (Octave's unique of a
% 1-by-0 cell is 0-by-1; this one stays 1-by-0).
n = numel(l);
order = 1:n;
for i = 2:n
  j = i;
  while j > 1 && text_before(t, s, l, order(j), order(j - 1))
    k = order(j);
    order(j) = order(j - 1);
    order(j - 1) = k;
    j = j - 1;
  end
end
keep = true(1, n);
for i = 2:n
  keep(i) = text_before(t, s, l, order(i - 1), order(i));
end
order = order(keep);
start = s(order);
len = l(order);
end

function yes = text_before(t, s, l, a, b)
% Whether text a sorts strictly before text b.
m = min(l(a), l(b));
yes = l(a) < l(b);
for k = 1:m
  ca = t(s(a) + k);
  cb = t(s(b) + k);
  if ca ~= cb
    yes = ca < cb;
    return;
  end
end
end
